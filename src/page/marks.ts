// The comment's verdict icons are emoji, drawn from a font the reader's
// machine may lack (a browser without an emoji font shows empty boxes): on
// the page each is a mark of its own, inline SVG with its meaning as its
// label, so an archived page reads the same anywhere.

/** A disc filling the 16 × 16 box (the page's markup has paths, not circles). */
const DISC = "M0 8a8 8 0 1 0 16 0a8 8 0 1 0-16 0z";

/** A 16 × 16 mark: its label, and its shapes. */
const mark = (label: string, shapes: string) =>
  `<svg class="mark" role="img" aria-label="${label}" viewBox="0 0 16 16" width="1em" height="1em">${shapes}</svg>`;

const MARKS: readonly (readonly [RegExp, string])[] = [
  [
    /\u2705/g,
    mark(
      "pass",
      `<path d="${DISC}" fill="#1a7f37"/><path d="M4.2 8.4l2.6 2.6 5-5.4" stroke="#fff" stroke-width="2" fill="none"/>`,
    ),
  ],
  [
    /\u274c/g,
    mark(
      "fail",
      `<path d="${DISC}" fill="#cf222e"/><path d="M5 5l6 6M11 5l-6 6" stroke="#fff" stroke-width="2"/>`,
    ),
  ],
  [
    /\u26a0\ufe0f?/g,
    mark(
      "warning",
      '<path d="M8 1l7.5 14H.5z" fill="#bf8700"/><path d="M8 6v4.5" stroke="#fff" stroke-width="1.8"/><path d="M7 11.6h2v2H7z" fill="#fff"/>',
    ),
  ],
  [
    /\u{1f6d1}/gu,
    mark(
      "stop",
      '<path d="M5 0h6l5 5v6l-5 5H5l-5-5V5z" fill="#cf222e"/><path d="M4 8h8" stroke="#fff" stroke-width="2"/>',
    ),
  ],
  [
    /\u23f8\ufe0f?/g,
    mark(
      "hold",
      `<path d="${DISC}" fill="#6e7781"/><path d="M6 4.5v7M10 4.5v7" stroke="#fff" stroke-width="2"/>`,
    ),
  ],
  [
    /\u2b06\ufe0f?/g,
    mark(
      "up",
      `<path d="${DISC}" fill="#0969da"/><path d="M8 12V4.5M4.8 7.5L8 4.3l3.2 3.2" stroke="#fff" stroke-width="2" fill="none"/>`,
    ),
  ],
];

/** HTML with every verdict emoji drawn as its mark (text elsewhere is left as it is). */
export function drawMarks(html: string): string {
  return MARKS.reduce((out, [emoji, svg]) => out.replace(emoji, svg), html);
}
