// Connection failures worth one more try.

/**
 * Errors of a connection the server had closed before our request reached it:
 * a kept-alive socket reused just as the server dropped it (llama.cpp's server
 * sends Keep-Alive and closes after each streamed response). Such a request is
 * sent once more on a fresh connection, by the load generator and the quality
 * runner alike.
 */
export const RECONNECTABLE = new Set(["UND_ERR_SOCKET", "ECONNRESET", "EPIPE"]);
