/** A binary min-heap of (due time, transactionRef): the sandbox pops what is due before serving each request. */
export class TransitionQueue {
  private at: number[] = [];
  private refs: string[] = [];

  get size(): number {
    return this.at.length;
  }

  push(dueAt: number, ref: string): void {
    this.at.push(dueAt);
    this.refs.push(ref);
    let i = this.at.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.at[p] <= this.at[i]) break;
      this.swap(i, p);
      i = p;
    }
  }

  /** Removes and returns the earliest entry due at or before `now`, or undefined. */
  popDue(now: number): string | undefined {
    if (this.at.length === 0 || this.at[0] > now) return undefined;
    const ref = this.refs[0];
    const lastAt = this.at.pop()!;
    const lastRef = this.refs.pop()!;
    if (this.at.length > 0) {
      this.at[0] = lastAt;
      this.refs[0] = lastRef;
      this.siftDown(0);
    }
    return ref;
  }

  clear(): void {
    this.at = [];
    this.refs = [];
  }

  private siftDown(i: number): void {
    const n = this.at.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.at[l] < this.at[m]) m = l;
      if (r < n && this.at[r] < this.at[m]) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(a: number, b: number): void {
    [this.at[a], this.at[b]] = [this.at[b], this.at[a]];
    [this.refs[a], this.refs[b]] = [this.refs[b], this.refs[a]];
  }
}
