// The seeded random streams of a workload, one per purpose: a new draw in one
// (adding prefixes, say) leaves every other as it was.

export const ARRIVAL_STREAM = 0xa7715;
export const LENGTH_STREAM = 0x1e9;
export const PROMPT_STREAM = 0x9c0;
export const SHUFFLE_STREAM = 0x5f1;
export const PREFIX_STREAM = 0x9f1;
export const PREFIX_PICK_STREAM = 0x9f2;
export const BLOCK_STREAM = 0xb10c;
