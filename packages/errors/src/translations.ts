// Error messages in other languages, chosen by Accept-Language; English is the default and the fallback.
import type { ErrorCode } from './catalogue';

type Catalogue = Partial<Record<ErrorCode, string>>;

const TRANSLATIONS: Record<string, Catalogue> = {
  de: {
    BAD_REQUEST: 'Die Anfrage ist fehlerhaft.',
    UNAUTHORIZED: 'Die Authentifizierung fehlt, ist ungültig, abgelaufen oder widerrufen.',
    FORBIDDEN: 'Sie haben keine Berechtigung für diese Aktion.',
    NOT_FOUND: 'Die Ressource existiert nicht.',
    VALIDATION_FAILED: 'Der Anfragekörper ist ungültig.',
    RATE_LIMITED: 'Zu viele Anfragen.',
    INTERNAL: 'Ein interner Fehler ist aufgetreten.',
  },
  fr: {
    BAD_REQUEST: 'La requête est mal formée.',
    UNAUTHORIZED: "L'authentification est absente, invalide, expirée ou révoquée.",
    FORBIDDEN: "Vous n'avez pas la permission d'effectuer cette action.",
    NOT_FOUND: "La ressource n'existe pas.",
    VALIDATION_FAILED: "Le corps de la requête n'est pas valide.",
    RATE_LIMITED: 'Trop de requêtes.',
    INTERNAL: "Une erreur interne s'est produite.",
  },
  es: {
    BAD_REQUEST: 'La solicitud está mal formada.',
    UNAUTHORIZED: 'La autenticación falta, no es válida, ha caducado o fue revocada.',
    FORBIDDEN: 'No tiene permiso para realizar esta acción.',
    NOT_FOUND: 'El recurso no existe.',
    VALIDATION_FAILED: 'El cuerpo de la solicitud no es válido.',
    RATE_LIMITED: 'Demasiadas solicitudes.',
    INTERNAL: 'Se produjo un error interno.',
  },
};

export const SUPPORTED_LANGUAGES = ['en', ...Object.keys(TRANSLATIONS)];

/** Picks the first supported language of an Accept-Language header, by quality. */
export function negotiateLanguage(header: string | undefined): string {
  if (!header) return 'en';
  const ranked = header
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.find((p) => p.trim().startsWith('q='));
      return { lang: tag.trim().toLowerCase().split('-')[0], q: q ? Number(q.trim().slice(2)) : 1 };
    })
    .filter((l) => l.lang && !Number.isNaN(l.q) && l.q > 0)
    .sort((a, b) => b.q - a.q);
  return ranked.find((l) => SUPPORTED_LANGUAGES.includes(l.lang))?.lang ?? 'en';
}

/** The translated message for a code, or undefined when none exists in that language. */
export function translatedMessage(code: ErrorCode, lang: string): string | undefined {
  return TRANSLATIONS[lang]?.[code];
}
