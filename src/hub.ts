/**
 * vmem's hub entry: all-MiniLM-L6-v2 and SigLIP through transformers.js, from the Hugging Face hub or a
 * self-hosted URL. A separate entry so the embedded default never bundles transformers.js.
 */
export { createHubImageEncoder, createHubTextEncoder } from './encoders/hub.js';
export type { HubImageEncoderOptions, HubModelOptions, HubTextEncoderOptions } from './encoders/hub.js';
