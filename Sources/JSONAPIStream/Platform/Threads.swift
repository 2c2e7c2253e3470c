#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
internal import CPlatform

// Threads and conditions over POSIX threads, so that the library and the command need
// only FoundationEssentials: Foundation's `Thread`, `NSLock` and `NSCondition` are all that
// they took from the whole of Foundation, which brings ICU and 6 MiB of resident pages to
// every process that links it (a Swift program that only starts: 16.6 MiB resident with
// Foundation, 10.3 MiB with FoundationEssentials).

/// Processor time of the calling thread alone (user and system, `CLOCK_THREAD_CPUTIME_ID`), in
/// seconds: what ``WorkerPool``'s helper counts, and what `jsonapi bench` takes the reading
/// thread's share of a run from.
package enum ThreadProcessorTime {
    package static var now: Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// ``now`` less the time the thread spent reading batches as its reader's own worker
    /// (``WorkerPool``'s helper): its time as the reading thread, splitting and delivering.
    package static var asReader: Double { now - jsonapi_helper_seconds() }
}

/// A mutex with a condition variable: what `NSCondition` is, and the library's lock where no
/// one waits (what `NSLock` was). The pthread objects are allocated once, so that their
/// addresses never change (a pthread mutex may not move).
package final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        mutex.initialize(to: pthread_mutex_t())
        condition.initialize(to: pthread_cond_t())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    package func unlock() { pthread_mutex_unlock(mutex) }
    /// Waits for a signal, the lock held (it is released while waiting, held again after).
    package func wait() { pthread_cond_wait(condition, mutex) }
    package func signal() { pthread_cond_signal(condition) }
    package func broadcast() { pthread_cond_broadcast(condition) }

    package func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// Threads of the library's own: detached, named, with the stack size asked for.
package enum NativeThread {
    /// Runs `body` on a new thread. The name is shown by `top -H` and debuggers (on Linux,
    /// its first 15 bytes). A thread that cannot be made (the system is out of threads or of
    /// memory for the stack) ends the process as out-of-memory does, through
    /// ``MemoryBudget/outOfMemory(needing:)``.
    package static func start(name: String, stackSize: Int, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(ThreadBody(name: name, creatorCPU: jsonapi_current_cpu(), body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, max(stackSize, Int(PTHREAD_STACK_MIN)))
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Darwin)
        var thread: pthread_t? = nil
        #else
        var thread = pthread_t()
        #endif
        let status = pthread_create(
            &thread, &attributes,
            { context in
                // Invariant: `context` is the box retained above, taken back once, here.
                let box = Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue()
                _ = jsonapi_leave_creator_cpu(box.creatorCPU)
                box.nameThisThread()
                box.body()
                return nil
            }, box)
        if status != 0 {
            Unmanaged<ThreadBody>.fromOpaque(box).release()
            MemoryBudget.outOfMemory(needing: stackSize)
        }
    }
}

private final class ThreadBody {
    let name: String
    /// The CPU the thread's creator ran on (-1: not known).
    let creatorCPU: Int32
    let body: @Sendable () -> Void

    init(name: String, creatorCPU: Int32, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.creatorCPU = creatorCPU
        self.body = body
    }

    func nameThisThread() { jsonapi_name_this_thread(name) }
}
