// Text as a text column receives it through the driver, for SQL that carries it inside a JSON parameter.

/** ES2024's well-formed string methods (Node has them; this project's TypeScript library is ES2023). */
type WellFormedText = string & { isWellFormed(): boolean; toWellFormed(): string };

/**
 * The text with each lone UTF-16 surrogate (a string cut inside an emoji) as U+FFFD, as the driver sends it; inside
 * JSON it would be an escape `jsonb` refuses. Copied only when it holds one (most text, a module too, holds none).
 */
export const wellFormed = (text: string): string =>
  (text as WellFormedText).isWellFormed() ? text : (text as WellFormedText).toWellFormed();
