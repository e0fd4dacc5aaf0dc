// An http(s) URL as every setting that names a server reads it.

/** The parsed URL, or undefined when the text is not an http(s) URL. */
export function httpUrl(raw: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
}
