/** The document `npm run generate` writes, as text (shared with the tests that judge the committed copy). */
import { buildDocument } from '../../../services/api/openapi/document';

export function renderDocument(): string {
  return `${JSON.stringify(buildDocument(), null, 2)}\n`;
}
