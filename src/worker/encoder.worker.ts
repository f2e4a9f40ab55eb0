/// <reference lib="webworker" />
/**
 * The encoder worker: hosts the encoders behind comlink so model loading and encoding never block
 * the page. Says "ready" once comlink listens (the client's handshake).
 */
import * as Comlink from 'comlink';
import { fetchBytes } from '../encoders/assets.js';
import { createEncoderHost } from './host.js';
import { createEmbeddedEncoderFactory } from './load-encoders.js';
import { createModelFetch } from './model-fetch.js';
import { embeddedModelFiles } from './model-files.js';
import { WORKER_READY_MESSAGE } from './protocol.js';

const fetchModelFile = createModelFetch(self);
const fetchWordVectorFile = () => fetchBytes(fetchModelFile, embeddedModelFiles().wordVectors, 'word vectors');
Comlink.expose(createEncoderHost(createEmbeddedEncoderFactory(fetchModelFile), fetchWordVectorFile));
self.postMessage({ type: WORKER_READY_MESSAGE });
