/**
 * The web dashboard's static files (web/, bundled into web/dist by `npm run build`), served at `/`.
 * Only GET/HEAD of paths outside the API's own (/v1, /healthz, /readyz, /metrics) reach the files, so
 * the mount never shadows an endpoint; a missing bundle (not built yet) just leaves `/` unanswered (404).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import express, { type RequestHandler } from 'express';

/** web/dist from the source tree (services/api) or from the compiled one (dist/services/api). */
function bundleDir(): string | null {
  for (const dir of [resolve(__dirname, '../../web/dist'), resolve(__dirname, '../../../web/dist')]) {
    if (existsSync(resolve(dir, 'index.html'))) return dir;
  }
  return null;
}

const apiPath = /^\/(v1|healthz|readyz|metrics)(\/|$)/;

export function dashboardStatic(): RequestHandler {
  const dir = bundleDir();
  const files = dir ? express.static(dir, { index: 'index.html', fallthrough: true, maxAge: 0, redirect: false }) : null;
  return (req, res, next) => {
    if (!files || (req.method !== 'GET' && req.method !== 'HEAD') || apiPath.test(req.path)) return next();
    // A page of its own for the shell: no framing by other sites, no inline script, same-origin only.
    res.setHeader('content-security-policy', "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
    res.setHeader('x-content-type-options', 'nosniff');
    files(req, res, next);
  };
}
