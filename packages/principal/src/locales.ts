// A project's locales: the list and its rules, and the fallback chain a read in one locale resolves through.
import { BadRequestError, ValidationFailedError, type FieldError } from '@cp/errors';

/** One locale of a project: a BCP 47 tag, the locale its missing values come from, and whether it is the default. */
export interface ProjectLocale {
  code: string;
  fallback?: string | null;
  default?: boolean | null;
}

/** A project's locale as stored: every member spelled out. */
export interface StoredLocale extends ProjectLocale {
  fallback: string | null;
  default: boolean;
}

/** A project that never set its locales has one. */
export const DEFAULT_LOCALES: readonly StoredLocale[] = Object.freeze([{ code: 'en', fallback: null, default: true }]);

/** Enough for any site; each locale can add a step to a fallback chain, which filters turn into SQL. */
export const MAX_LOCALES = 100;

/**
 * The longest fallback chain, the locale itself included: a filter on a localized property is one index probe per
 * step, each with the earlier steps beside it, and a site rarely falls back more than twice.
 */
export const MAX_CHAIN = 10;

/** `locale=*`: every locale's values at once, as maps of code → value. */
export const ALL_LOCALES = '*';

/** The tag in its canonical case (`de-ch` → `de-CH`), or undefined when it is no well-formed BCP 47 tag. */
export function canonicalLocale(code: unknown): string | undefined {
  if (typeof code !== 'string' || code.length === 0 || code.length > 64) return undefined;
  try {
    return Intl.getCanonicalLocales(code)[0];
  } catch {
    return undefined;
  }
}

/**
 * A project's `locales` as given on create or update, checked and with each tag in canonical case: 422
 * `VALIDATION_FAILED` (one error per problem) unless the codes are distinct BCP 47 tags, exactly one is the default
 * and has no fallback, every fallback names another locale of the list, and no chain of fallbacks comes back to
 * where it started or runs longer than `MAX_CHAIN`.
 */
export function checkedLocales(input: readonly ProjectLocale[]): StoredLocale[] {
  const errors: FieldError[] = [];
  if (input.length === 0 || input.length > MAX_LOCALES)
    throw new ValidationFailedError([{ path: '/locales', message: `must hold 1 to ${MAX_LOCALES} locales` }]);
  const locales = input.map((locale, i) => {
    const code = canonicalLocale(locale.code);
    if (!code) errors.push({ path: `/locales/${i}/code`, message: 'must be a BCP 47 language tag (`en`, `de-CH`)' });
    const fallback = locale.fallback == null ? null : (canonicalLocale(locale.fallback) ?? locale.fallback);
    return { code: code ?? locale.code, fallback, default: locale.default === true };
  });
  const codes = new Map<string, number>();
  locales.forEach((locale, i) => {
    if (codes.has(locale.code)) errors.push({ path: `/locales/${i}/code`, message: `repeats "${locale.code}"` });
    else codes.set(locale.code, i);
  });
  const defaults = locales.filter((l) => l.default);
  if (defaults.length !== 1) errors.push({ path: '/locales', message: 'must have exactly one default locale' });
  locales.forEach((locale, i) => {
    if (locale.fallback === null) return;
    if (locale.default) errors.push({ path: `/locales/${i}/fallback`, message: 'the default locale has no fallback' });
    else if (!codes.has(locale.fallback))
      errors.push({ path: `/locales/${i}/fallback`, message: `names no locale of the list ("${locale.fallback}")` });
    else if (locale.fallback === locale.code)
      errors.push({ path: `/locales/${i}/fallback`, message: 'names the locale itself' });
  });
  if (errors.length === 0) {
    const byCode = new Map(locales.map((l) => [l.code, l]));
    locales.forEach((locale, i) => {
      const seen = new Set<string>();
      for (let at: string | null = locale.code; at !== null; at = byCode.get(at)!.fallback) {
        if (seen.has(at)) {
          errors.push({
            path: `/locales/${i}/fallback`,
            message: `starts a cycle of fallbacks (${[...seen].join(' → ')})`,
          });
          break;
        }
        seen.add(at);
        if (seen.size > MAX_CHAIN) {
          errors.push({ path: `/locales/${i}/fallback`, message: `falls back more than ${MAX_CHAIN - 1} times` });
          break;
        }
      }
    });
  }
  if (errors.length > 0) throw new ValidationFailedError(errors, 'The locales are not valid.');
  return locales;
}

/** What a read or a write asked for (`locale`), resolved against the project's locales. */
export interface LocaleRequest {
  /** The requested code (canonical case), or `*`. */
  code: string;
  /**
   * The codes a value is looked up in, in order: the code, its fallback, the fallback's fallback… For `*`, the
   * default locale's (filters and sort need one value per entry).
   */
  chain: readonly string[];
  /** Every code of the project, in its order. */
  codes: readonly string[];
  /** The project's default locale. */
  defaultCode: string;
}

/** Requests resolved per list of locales (the directory hands out one list object per project while it is current). */
const resolved = new WeakMap<readonly ProjectLocale[], Map<string, LocaleRequest>>();
const MAX_RESOLVED = 256;

/**
 * `requested` (absent: the default locale) against the project's locales; an unknown or malformed code is 400
 * `BAD_REQUEST` naming the parameter. Answers are kept per list and code: a read resolves its locale on every request.
 */
export function localeRequest(locales: readonly ProjectLocale[], requested?: string | null): LocaleRequest {
  const key = requested ?? '';
  let known = resolved.get(locales);
  const hit = known?.get(key);
  if (hit) return hit;
  const request = resolve(locales, requested);
  if (!known) resolved.set(locales, (known = new Map()));
  if (known.size >= MAX_RESOLVED) known.clear();
  known.set(key, request);
  return request;
}

function resolve(locales: readonly ProjectLocale[], requested?: string | null): LocaleRequest {
  const defaultCode = (locales.find((l) => l.default) ?? locales[0]).code;
  const codes = locales.map((l) => l.code);
  const chainOf = (code: string) => {
    const chain: string[] = [];
    for (let at: string | undefined = code; at && !chain.includes(at);) {
      chain.push(at);
      at = locales.find((l) => l.code === at)?.fallback ?? undefined;
    }
    return chain;
  };
  if (requested === ALL_LOCALES)
    return Object.freeze({ code: ALL_LOCALES, chain: chainOf(defaultCode), codes, defaultCode });
  const code = requested == null || requested === '' ? defaultCode : canonicalLocale(requested);
  if (!code || !codes.includes(code))
    throw new BadRequestError(
      `Unknown locale "${requested}": this project has ${codes.map((c) => `\`${c}\``).join(', ')}.`,
      {
        parameter: 'locale',
        value: requested,
        allowed: [...codes, ALL_LOCALES],
      },
    );
  return Object.freeze({ code, chain: chainOf(code), codes, defaultCode });
}
