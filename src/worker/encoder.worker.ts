/// <reference lib="webworker" />
/**
 * The encoder worker: hosts the encoders behind comlink so model loading and encoding never block
 * the page. Says "ready" once comlink listens (the client's handshake).
 */
import * as Comlink from 'comlink';
import { createEncoderHost } from './host.js';
import { loadEncoders } from './load-encoders.js';
import { WORKER_READY_MESSAGE } from './protocol.js';

Comlink.expose(createEncoderHost(loadEncoders));
self.postMessage({ type: WORKER_READY_MESSAGE });
