// Whether a module is the program Node was started with, so an entry file can
// export its run function to tests and still run when invoked. (import.meta.main
// is Node ≥ 24.2 only; the CLI supports 22.19.)

import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";

export function isEntryModule(moduleUrl: string): boolean {
  const started = process.argv[1];
  if (!started) return false;
  try {
    return realpathSync(started) === realpathSync(fileURLToPath(moduleUrl));
  } catch {
    return false;
  }
}
