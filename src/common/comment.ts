// The sticky comment: the hidden marker that makes a comment the gate's one
// for its key (the rendered comment starts with it, the publisher finds it by
// it), and when a comment is posted.

export function marker(key: string): string {
  return `<!-- llm-perf-gate:${key} -->`;
}

/** always; on-regression: create one only when not pass (an existing one is kept current); never. */
export type CommentPolicy = "always" | "on-regression" | "never";
export const COMMENT_POLICIES: readonly CommentPolicy[] = ["always", "on-regression", "never"];

/** How a run is published: the comment's policy and key, and the job summary. */
export interface PublishSettings {
  comment: CommentPolicy;
  /** One sticky comment per key. */
  commentKey: string;
  jobSummary: boolean;
}
