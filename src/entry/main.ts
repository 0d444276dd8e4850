// The script's public surface: every name exported here becomes a top-level Apps Script function.
export { doPost } from './do-post';
export { doGet } from './do-get';
export { processQueue } from './process-queue';
export { reconcileTypeform } from './reconcile-typeform';
export { watchTypeformWebhook } from './watch-typeform';
export { selfTest } from './self-test';
export {
  setup,
  onOpen,
  onEditInstallable,
  menuProcessNow,
  menuApproveSelected,
  menuRetrySelected,
  menuSkipSelected,
  menuMarkSent,
  menuAcceptRejected,
  menuQueueHealth,
  menuPause,
  menuResume,
  menuSetProperty,
  menuCheckTypeform,
  menuPreviewReply,
} from './staff';
