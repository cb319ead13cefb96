/**
 * Positions ready to be taken, smallest first (a binary heap): how every ordering in this folder breaks a tie
 * (the node given first goes first), and how the applier starts steps in plan order as far as dependencies allow.
 */
export class ReadyQueue {
  private readonly heap: number[] = [];

  get size(): number {
    return this.heap.length;
  }

  push(position: number): void {
    const heap = this.heap;
    heap.push(position);
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (heap[parent]! <= heap[i]!) break;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  }

  /** The smallest position (the queue must not be empty). */
  pop(): number {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && heap[l]! < heap[m]!) m = l;
        if (r < heap.length && heap[r]! < heap[m]!) m = r;
        if (m === i) break;
        [heap[m], heap[i]] = [heap[i]!, heap[m]!];
        i = m;
      }
    }
    return top;
  }
}
