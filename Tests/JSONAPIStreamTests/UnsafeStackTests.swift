import Testing

@testable import JSONAPIStream

/// The parser's stacks (open containers, member names, a resource's drafts) against `Array`,
/// the model they replace, and the lifetimes of what they hold.
struct UnsafeStackTests {
    /// Counts its live instances, so that a test can see every element released.
    final class Tracked {
        nonisolated(unsafe) static var alive = 0
        let value: Int
        init(_ value: Int) {
            self.value = value
            Tracked.alive += 1
        }
        deinit { Tracked.alive -= 1 }
    }

    /// The same operations on a stack and on an array, past several doublings of the stack's
    /// storage, with both compared after each step.
    @Test func behavesLikeAnArray() {
        var stack = UnsafeStack<Int>(capacity: 4)
        var model: [Int] = []
        #expect(stack.isEmpty && stack.last == nil && stack.popLast() == nil)
        for i in 0..<1000 {
            stack.push(i)
            model.append(i)
            if i % 7 == 0 {
                #expect(stack.popLast() == model.popLast())
            }
            if i % 100 == 99 {
                stack.truncate(to: model.count - 10)
                model.removeLast(10)
            }
            #expect(stack.count == model.count && stack.last == model.last)
        }
        #expect(Array(stack.elements) == model)
        stack.top = -1
        model[model.count - 1] = -1
        stack[3] = -3
        model[3] = -3
        stack.append(contentsOf: [7, 8, 9][1...])
        model.append(contentsOf: [8, 9])
        #expect(Array(stack.elements) == model && stack.topPointer.pointee == 9)
        #expect(stack.pop() == 9 && stack.count == model.count - 1)
        stack.removeAll()
        #expect(stack.isEmpty && stack.elements.isEmpty)
    }

    /// Elements that are not trivial are released by every way out: pop, popLast,
    /// truncate, removeAll, growth (moved, not copied) and the stack's end.
    @Test func releasesWhatItHolds() {
        Tracked.alive = 0
        do {
            var stack = UnsafeStack<Tracked>(capacity: 4)
            for i in 0..<40 { stack.push(Tracked(i)) }
            #expect(Tracked.alive == 40, "growing the storage copied or lost elements")
            #expect(stack.pop().value == 39 && Tracked.alive == 39)
            #expect(stack.popLast()?.value == 38 && Tracked.alive == 38)
            stack.truncate(to: 30)
            #expect(Tracked.alive == 30 && stack.last?.value == 29)
            stack.removeAll()
            #expect(Tracked.alive == 0)
            for i in 0..<5 { stack.push(Tracked(i)) }
            #expect(stack.elements.map(\.value) == [0, 1, 2, 3, 4])
        }
        #expect(Tracked.alive == 0, "the stack's end left elements alive")
    }
}
