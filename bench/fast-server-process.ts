// bench/fast-server.ts started as a process of its own (so the server never
// shares the load generator's core), resolved with its URL once it listens.

import { spawn } from "node:child_process";

export async function startFastServer(
  tokens: number,
  perWrite: number,
): Promise<{ url: string; pid: number | undefined; stop: () => void }> {
  const child = spawn(
    process.execPath,
    [new URL("./fast-server.ts", import.meta.url).pathname, "0", String(tokens), String(perWrite)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const url = await new Promise<string>((resolve) => {
    child.stdout.on("data", (d: Buffer) => {
      const m = d.toString().match(/(http:\/\/\S+)/);
      if (m) resolve(m[1] as string);
    });
  });
  return { url, pid: child.pid, stop: () => child.kill("SIGTERM") };
}
