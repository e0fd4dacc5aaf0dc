// A page opened in a real headless Chromium (the one `npm ci` brings:
// helpers/browser.ts; CHROMIUM_PATH for another): what it logged, every
// request it made, and what each chart shows.

import { chromium } from "playwright-core";
import { testBrowser } from "./browser.ts";

/** Without the background-networking switches Chromium calls home at start (refused here). */
const ARGS = [
  "--no-sandbox",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface OpenedPage {
  /** Console messages of type error or warning, and uncaught page errors. */
  problems: string[];
  /** Every URL the page asked for, the page's own file included. */
  requests: string[];
  /** The page's visible text. */
  text: string;
  figures: { id: string; svgs: number; svgText: string; tableText: string }[];
  /** Whether a script from the file ran (it sets window.__pwned). */
  pwned: boolean;
  /** A PNG of the page's first `screenshotHeight` pixels, when asked. */
  screenshot: Buffer | null;
}

export async function openInChromium(path: string, screenshotHeight = 0): Promise<OpenedPage> {
  const b = testBrowser();
  const browser = await chromium.launch({
    executablePath: b.executablePath,
    args: [...b.args, ...ARGS],
    env: b.env,
    timeout: 60_000,
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("request", (r) => requests.push(r.url()));
    await page.goto(`file://${path}`, { waitUntil: "load", timeout: 60_000 });
    const figures = await page.$$eval("figure.chart", (els) =>
      els.map((f) => ({
        id: f.id,
        svgs: f.querySelectorAll(".svg svg").length,
        svgText: [...f.querySelectorAll(".svg svg text")].map((t) => t.textContent).join(" "),
        tableText: f.querySelector(".numbers")?.textContent ?? "",
      })),
    );
    // Evaluated in the page (strings: this project's types have no DOM).
    const text = String(await page.evaluate("document.body.innerText"));
    const pwned = (await page.evaluate('"__pwned" in window')) === true;
    const screenshot =
      screenshotHeight > 0
        ? await page.screenshot({
            clip: { x: 0, y: 0, width: 1280, height: screenshotHeight },
            fullPage: true,
          })
        : null;
    return { problems, requests, text, figures, pwned, screenshot };
  } finally {
    await browser.close();
  }
}
