// The script's public surface: every name exported here becomes a top-level Apps Script function.
export { doPost } from './do-post';
