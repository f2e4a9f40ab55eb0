/// <reference lib="webworker" />
/**
 * The encoder worker: hosts the encoders behind comlink so model loading and encoding never block
 * the page. Says "ready" once comlink listens (the client's handshake).
 */
import * as Comlink from 'comlink';
import { defaultFetch, fetchBytes } from '../encoders/assets.js';
import { createEncoderHost } from './host.js';
import { loadEncoders } from './load-encoders.js';
import { embeddedModelFiles } from './model-files.js';
import { WORKER_READY_MESSAGE } from './protocol.js';

const fetchWordVectorFile = () => fetchBytes(defaultFetch(), embeddedModelFiles().wordVectors, 'word vectors');
Comlink.expose(createEncoderHost(loadEncoders, fetchWordVectorFile));
self.postMessage({ type: WORKER_READY_MESSAGE });
