import CPlatform
import Foundation
import Testing

@testable import JSONAPIStream

/// What the library uses in place of Foundation's (it links FoundationEssentials only):
/// threads, a condition, C formatting of numbers, trimming white space.
@Suite struct PlatformTests {
    /// A thread runs its body once, and a condition hands a value back from it.
    @Test(.timeLimit(.minutes(1))) func aThreadRunsAndSignalsBack() {
        final class Box: @unchecked Sendable {
            let condition = Condition()
            var values: [Int] = []
        }
        let box = Box()
        for i in 0..<4 {
            NativeThread.start(name: "jsonapi-test", stackSize: 256 << 10) {
                box.condition.withLock { box.values.append(i) }
                box.condition.broadcast()
            }
        }
        box.condition.lock()
        while box.values.count < 4 { box.condition.wait() }
        box.condition.unlock()
        #expect(box.values.sorted() == [0, 1, 2, 3])
    }

    /// Linux refuses a thread name longer than 15 bytes: the name is cut to fit, and the
    /// thread shows it (`/proc/self/task/TID/comm`).
    @Test(.timeLimit(.minutes(1))) func aLongThreadNameIsCutToFifteenBytes() throws {
        #if os(Linux)
        final class Box: @unchecked Sendable {
            let condition = Condition()
            var name: String?
            var done = false
        }
        let box = Box()
        NativeThread.start(name: "jsonapi-a-very-long-thread-name", stackSize: 256 << 10) {
            let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
            box.condition.withLock {
                box.name = comm?.trimmingWhitespace()
                box.done = true
            }
            box.condition.broadcast()
        }
        box.condition.lock()
        while !box.done { box.condition.wait() }
        box.condition.unlock()
        #expect(box.name == "jsonapi-a-very-")
        #endif
    }

    /// A new thread that runs on its creator's CPU moves to another it may use, and keeps
    /// the CPUs it may use (`jsonapi_leave_creator_cpu`, called first on every thread of the
    /// library's). Run here on a thread that calls it as if this CPU were its creator's.
    @Test(.timeLimit(.minutes(1))) func aThreadOnItsCreatorsCPULeavesIt() {
        final class Box: @unchecked Sendable {
            let condition = Condition()
            var result: (before: Int32, movedTo: Int32, coresBefore: Int32, coresAfter: Int32)? = nil
        }
        let box = Box()
        NativeThread.start(name: "jsonapi-test", stackSize: 256 << 10) {
            let before = jsonapi_current_cpu()
            let cores = jsonapi_usable_cores()
            let movedTo = jsonapi_leave_creator_cpu(before)
            let r = (before, movedTo, cores, jsonapi_usable_cores())
            box.condition.withLock { box.result = r }
            box.condition.broadcast()
        }
        box.condition.lock()
        while box.result == nil { box.condition.wait() }
        box.condition.unlock()
        guard let r = box.result else { return }
        // The CPUs it may use are the same; it moved when it may (Linux: the CPU is known).
        #expect(r.coresAfter == r.coresBefore)
        if r.before >= 0 && r.coresBefore >= 2 && ProcessInfo.processInfo.environment["JSONAPI_THREADS_STAY"] == nil {
            #expect(r.movedTo >= 0 && r.movedTo != r.before)
        } else {
            #expect(r.movedTo == -1)
        }
    }

    @Test func numbersAreFormattedAsCFormatsThem() {
        #expect(cFormat("%.1f MB", 1_234_567.0 / 1e6) == "1.2 MB")
        #expect(cFormat("%.3f", 0.0005) == "0.001")
        #expect(cFormat("%g", 2.5) == "2.5")
        #expect(cFormat("%ld resources", 42) == "42 resources")
        // Longer than the first buffer (64 bytes): formatted again in one that fits.
        let long = cFormat("%0100.2f", 3.14159)
        #expect(long.count == 100 && long.hasSuffix("003.14") && long.allSatisfy { $0.isNumber || $0 == "." })
        #expect(cFormat("%.1f", Double.infinity) == "inf")
    }

    @Test func whiteSpaceIsTrimmedAtBothEnds() {
        #expect("  a b \n\t".trimmingWhitespace() == "a b")
        #expect(" \n ".trimmingWhitespace() == "")
        #expect("".trimmingWhitespace() == "")
        #expect("x".trimmingWhitespace() == "x")
        #expect("\u{00A0}name\u{2003}".trimmingWhitespace() == "name")
        #expect(Substring(" v ").trimmingWhitespace() == "v")
    }
}
