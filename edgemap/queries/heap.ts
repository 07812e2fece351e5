// A binary min-heap for Dijkstra (closest-by-latency): push and pop in O(log n).
export class MinHeap<T> {
  readonly #items: T[] = [];
  readonly #less: (a: T, b: T) => boolean;

  constructor(less: (a: T, b: T) => boolean) {
    this.#less = less;
  }

  get size(): number { return this.#items.length; }

  push(item: T): void {
    const items = this.#items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(items[i] as T, items[parent] as T)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      this.#siftDown(0);
    }
    return top;
  }

  #siftDown(start: number): void {
    const items = this.#items;
    let i = start;
    for (;;) {
      let smallest = i;
      for (const child of [2 * i + 1, 2 * i + 2]) {
        if (child < items.length && this.#less(items[child] as T, items[smallest] as T)) smallest = child;
      }
      if (smallest === i) return;
      this.#swap(i, smallest);
      i = smallest;
    }
  }

  #swap(i: number, j: number): void {
    const items = this.#items;
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
}
