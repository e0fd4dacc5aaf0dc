// Beyond this many pairs the advice is to steady the measurement, not to add pairs.
export const MAX_ADVISED_PAIRS = 100;
