// The fleet's autoscaler rule, as Kubernetes' Horizontal Pod Autoscaler
// decides: desired = ceil(ready × metric ÷ target), left alone within a 10 %
// tolerance, clamped to [min, max]; up at once, down only to the highest
// count wanted over the stabilisation window. Pure: the fleet supplies the
// clock and the counts, so the rule can be reasoned about on its own.

/** The HPA's default tolerance: no change while metric ÷ target is within 10 % of 1. */
const TOLERANCE = 0.1;

export interface ScalerRule {
  minReplicas: number;
  maxReplicas: number;
  target: number;
  stabilizationS: number;
}

export class Autoscaler {
  private readonly rule: ScalerRule;
  /** The desired counts of the last stabilizationS seconds, oldest first. */
  private history: { atMs: number; desired: number }[] = [];

  constructor(rule: ScalerRule) {
    this.rule = rule;
  }

  /**
   * The replica count to have, ready and pending together, given the ready
   * ones, those still starting and the metric read over the ready ones.
   */
  next(atMs: number, ready: number, pending: number, metric: number): number {
    const { minReplicas, maxReplicas, target, stabilizationS } = this.rule;
    const current = ready + pending;
    const ratio = metric / target;
    // 1e-9: 2 × 1.1 is 2.2000000000000002 in floating point, not a third replica's worth.
    const raw = Math.abs(ratio - 1) <= TOLERANCE ? current : Math.ceil(ready * ratio - 1e-9);
    const desired = Math.min(maxReplicas, Math.max(minReplicas, raw));
    this.history = this.history.filter((h) => h.atMs > atMs - stabilizationS * 1000);
    this.history.push({ atMs, desired });
    if (desired >= current) return desired;
    const highest = Math.max(...this.history.map((h) => h.desired));
    return Math.min(current, highest);
  }
}
