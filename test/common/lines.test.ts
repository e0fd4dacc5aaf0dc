// Lines are walked one at a time, numbered from 1, "\r\n" and "\n" alike.

import assert from "node:assert/strict";
import { test } from "node:test";
import { linesOf } from "../../src/common/lines.ts";

const all = (text: string) => [...linesOf(text)].map(({ line, number }) => `${number}:${line}`);

test("each line with its number, without its line ending", () => {
  assert.deepEqual(all("a\nb\r\nc"), ["1:a", "2:b", "3:c"]);
  assert.deepEqual(all("a\n"), ["1:a", "2:"]);
  assert.deepEqual(all(""), ["1:"]);
  assert.deepEqual(all("\n\n"), ["1:", "2:", "3:"]);
  assert.deepEqual(all("x\r"), ["1:x"]);
});
