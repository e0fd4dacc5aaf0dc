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

/**
 * Whether the text carries credentials (user:password@) before its host,
 * parsable as a URL or not: such a text is refused without being quoted.
 */
export function hasUserinfo(raw: string): boolean {
  // With a scheme, anything before an @ in the authority; without one, user:password@.
  return /^\s*[a-z][a-z0-9+.-]*:\/\/[^/?#\s]*@|^\s*[^/?#\s:@]+:[^/?#\s@]*@/i.test(raw);
}
