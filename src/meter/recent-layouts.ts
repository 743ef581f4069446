/**
 * The frame layouts learnt from one meter's stream (SML frames, D0 readouts), most recently used
 * first, at most `capacity`: meters that alternate between two or more kinds of frame keep a layout
 * for each. A layout dropped to make room before it was ever used was learnt in vain; the decoders
 * count those to stop or slow learning for meters whose frames never repeat their layout.
 */
export class RecentLayouts<Layout> {
  private layouts: Layout[] = [];
  private used: boolean[] = [];

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.layouts.length;
  }

  /** The k-th layout, most recently used first (0 <= k < size). */
  at(k: number): Layout {
    return this.layouts[k]!;
  }

  /** Marks the k-th layout used and moves it to the front. */
  use(k: number): void {
    if (k > 0) {
      this.layouts.unshift(...this.layouts.splice(k, 1));
      this.used.splice(k, 1);
      this.used.unshift(true);
    } else this.used[0] = true;
  }

  /** Puts a new layout in front; true when this dropped the last one and it had never been used. */
  add(layout: Layout): boolean {
    this.layouts.unshift(layout);
    this.used.unshift(false);
    if (this.layouts.length <= this.capacity) return false;
    this.layouts.pop();
    return this.used.pop() === false;
  }

  clear(): void {
    this.layouts = [];
    this.used = [];
  }
}
