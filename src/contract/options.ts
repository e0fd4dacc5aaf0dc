// What a gate runs of the contract suite: the probes chosen — and the runner
// a test may stand in for.

import type { Target } from "../openai/target.ts";
import type { ArmContract, ContractRunOptions, ContractSelection } from "./probes.ts";

export interface ContractOptions {
  /** The file it came from, or "builtin". */
  source: string;
  selection: ContractSelection;
}

export interface ContractDeps {
  /** Runs the contract probes against one arm (the real runner by default). */
  runContract?: (
    target: Target,
    options: ContractRunOptions,
    only?: ReadonlySet<string>,
  ) => Promise<ArmContract>;
}
