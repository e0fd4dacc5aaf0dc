// What a prompt file holds once parsed (src/config/dataset.ts parses it).

export interface ChatMessage {
  role: string;
  content: string;
}

export interface DatasetEntry {
  messages: ChatMessage[];
  /** Requested output tokens, when the file says. */
  maxTokens: number | undefined;
}

/** ~4 characters per token: the estimate used wherever no tokenizer is at hand. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
