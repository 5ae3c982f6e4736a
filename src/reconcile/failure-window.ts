/**
 * Tracks whether the provider is failing most recent fetches, so a run stops as
 * `provider_unavailable` instead of writing thousands of error rows.
 */
export class FailureWindow {
  private readonly outcomes: boolean[] = [];
  private failures = 0;

  constructor(
    private readonly size = 50,
    private readonly threshold = 0.8,
  ) {}

  record(failed: boolean): void {
    this.outcomes.push(failed);
    if (failed) this.failures++;
    if (this.outcomes.length > this.size && this.outcomes.shift()) this.failures--;
  }

  /** True once the window is full and the failure share reaches the threshold. */
  get tripped(): boolean {
    return this.outcomes.length >= this.size && this.failures / this.outcomes.length >= this.threshold;
  }
}
