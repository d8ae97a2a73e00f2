// The minimum password policy — at least 12 characters, and not guessable (zxcvbn score ≥ 3, whose
// dictionaries include ~49k passwords from public breaches), checked when a user is created or changes a password.
import { ValidationFailedError } from '@cp/errors';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';

export const MIN_PASSWORD_LENGTH = 12;
/** Passwords longer than this are refused before hashing (bounds the work an attacker can make us do). */
export const MAX_PASSWORD_LENGTH = 1024;
const MIN_SCORE = 3;

let estimator: ZxcvbnFactory | undefined;

/** Loaded on first use: the dictionaries cost ~15 MB, which a replica that never sees a password change never pays. */
async function loadEstimator(): Promise<ZxcvbnFactory> {
  if (!estimator) {
    const [{ ZxcvbnFactory }, common] = await Promise.all([
      import('@zxcvbn-ts/core'),
      import('@zxcvbn-ts/language-common'),
    ]);
    estimator = new ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });
  }
  return estimator;
}

/** 422 on `/password` with the reason; `related` (email, name) counts as guessable too. */
export async function assertAcceptablePassword(password: string, related: string[] = []): Promise<void> {
  const refuse = (message: string) => new ValidationFailedError([{ path: '/password', message }]);
  if ([...password].length < MIN_PASSWORD_LENGTH) throw refuse(`must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > MAX_PASSWORD_LENGTH) throw refuse(`must be at most ${MAX_PASSWORD_LENGTH} characters`);
  const result = (await loadEstimator()).check(password, related.filter(Boolean));
  if (result.score < MIN_SCORE) {
    const hint = [result.feedback.warning, ...result.feedback.suggestions].filter(Boolean).join('; ');
    throw refuse(`is too easy to guess (a common, breached or patterned password)${hint ? `: ${hint}` : ''}`);
  }
}
