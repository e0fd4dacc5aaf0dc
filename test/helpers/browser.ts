// The browser the page tests open pages in, as `npm ci` brings it: the
// headless Chromium shipped inside a registry package (@sparticuz/chromium:
// the binary, its NSS libraries, SwiftShader and a font, brotli-compressed in
// the package itself — nothing downloaded at install), unpacked once per
// machine into the temp directory. CHROMIUM_PATH names another (Debian's
// /usr/bin/chromium, say) instead.

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliDecompressSync } from "node:zlib";

export interface Browser {
  executablePath: string;
  /** The switches it needs beside the tests' own, and its environment. */
  args: string[];
  env: Record<string, string | undefined>;
}

/** The switches a system Chromium takes as it is. */
const SYSTEM: Omit<Browser, "executablePath"> = {
  args: ["--headless", "--disable-gpu"],
  env: process.env,
};

/** The package's bin/ folder and version. */
function shipped(): { bin: string; version: string } {
  const build = dirname(fileURLToPath(import.meta.resolve("@sparticuz/chromium")));
  const manifest = JSON.parse(readFileSync(join(build, "..", "package.json"), "utf8"));
  return { bin: join(build, "..", "bin"), version: String(manifest.version) };
}

/** Unpacks the package's files into `dir` (the binary, and the archives' contents beside it), to be renamed to `final`. */
function unpack(bin: string, dir: string, final: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "chromium"),
    brotliDecompressSync(readFileSync(join(bin, "chromium.br"))),
    {
      mode: 0o755,
    },
  );
  for (const archive of ["swiftshader.tar.br", "al2023.tar.br", "fonts.tar.br"]) {
    const tar = spawnSync("tar", ["-x", "-C", dir], {
      input: brotliDecompressSync(readFileSync(join(bin, archive))),
      maxBuffer: 1024,
    });
    if (tar.status !== 0) throw new Error(`unpacking ${archive}: ${tar.stderr}`);
  }
  // The package's fonts.conf names a serverless platform's paths: this one names ours.
  writeFileSync(
    join(dir, "fonts.conf"),
    `<?xml version="1.0"?>\n<fontconfig><dir>${join(final, "fonts")}</dir><cachedir>${join(final, "fonts-cache")}</cachedir></fontconfig>\n`,
  );
}

/** The shipped browser, unpacked once: into a folder of its own, renamed into place whole (test files race for it). */
function shippedBrowser(): Browser {
  const { bin, version } = shipped();
  const dir = join(tmpdir(), `llm-perf-gate-chromium-${version}`);
  if (!existsSync(join(dir, "chromium"))) {
    const partial = `${dir}.${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    unpack(bin, partial, dir);
    try {
      renameSync(partial, dir);
    } catch {
      // Another test file unpacked it first.
      rmSync(partial, { recursive: true, force: true });
    }
  }
  return {
    executablePath: join(dir, "chromium"),
    args: [
      "--headless=shell",
      "--no-zygote",
      "--use-gl=angle",
      "--use-angle=swiftshader",
      "--enable-unsafe-swiftshader",
      "--in-process-gpu",
    ],
    env: {
      ...process.env,
      LD_LIBRARY_PATH: [join(dir, "lib"), process.env.LD_LIBRARY_PATH].filter(Boolean).join(":"),
      FONTCONFIG_FILE: join(dir, "fonts.conf"),
    },
  };
}

/** CHROMIUM_PATH when set, else the browser npm ci brought. */
export function testBrowser(): Browser {
  const path = process.env.CHROMIUM_PATH;
  return path ? { executablePath: path, ...SYSTEM } : shippedBrowser();
}
