import { type Language, translate } from '../../common';
import type { RunEvent } from '../store/run-events';

/**
 * An event as a reader in `language` sees it. The log keeps one canonical (English) copy that
 * every reader shares, so the translation happens here, as an event is written to a client:
 * `status.text` and `error.message` become the catalogue's translation of the text they were
 * built from; codes, names, fields and any text not from the catalogue (an `ask_user` question)
 * stay as they are. An event that does not change is returned itself.
 */
export function localizeEvent(event: RunEvent, language: Language): RunEvent {
  if (language === 'en') return event;
  switch (event.type) {
    case 'status': {
      const text = translate(event.data.text, language);
      return text === event.data.text ? event : { ...event, data: { ...event.data, text } };
    }
    case 'error': {
      const message = translate(event.data.message, language);
      return message === event.data.message ? event : { ...event, data: { ...event.data, message } };
    }
    default:
      return event;
  }
}

/** Whether an event of this type may read differently in another language (the rest are shared as they are). */
export const isLocalized = (type: RunEvent['type']): boolean => type === 'status' || type === 'error';
