// The REST API as the composition root (app/service.ts) takes it: the express app, and the callback body
// of a queued asynchronous account creation (an AccountDTO, so wire format: it belongs here).
import type { HttpLayer } from '../app/service.js';
import { processAsyncCreation } from './accounts/asyncRoutes.js';
import { createApp } from './app.js';
import { stopRecorder } from './auditLogs/requestRecorder.js';

export const httpLayer: HttpLayer = { createApp, asyncCreation: processAsyncCreation, stop: stopRecorder };
