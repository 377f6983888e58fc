/** The pattern a function name must match (decisions §2). In a file of its own: readers without zod use it. */
export const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;
