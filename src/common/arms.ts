// The two variants every comparison is about.

export type Arm = "baseline" | "candidate";
export const ARMS: readonly Arm[] = ["baseline", "candidate"];
