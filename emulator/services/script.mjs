// Host handlers for ScriptApp's installable triggers: each belongs to the user who created it, 20 per user per script.
import { randomInt } from 'node:crypto';
import { GasError } from '../errors.mjs';

// "Triggers: 20 / user / script" (https://developers.google.com/apps-script/guides/services/quotas#current_limitations).
export const MAX_TRIGGERS_PER_USER = 20;
// Google's text, as scripts log it when the 21st create() fails.
export const TOO_MANY_TRIGGERS_MESSAGE = 'This script has too many triggers. Triggers must be deleted from the script before more can be added.';

export const triggerRef = (t) => ({ __ref: 'Trigger', h: { ...t } });

/** Triggers persisted before owners were recorded were all installed by the deployer. */
export const ownerOf = (host, t) => t.owner ?? host.owner;

/**
 * getProjectTriggers: "all installable triggers associated with the current project and current user"; a trigger another
 * account installed cannot be seen (https://developers.google.com/apps-script/reference/script/script-app#getprojecttriggers,
 * https://developers.google.com/apps-script/guides/triggers/installable#restrictions). The current user is the effective one.
 */
const mine = (x) => x.host.triggers.filter((t) => ownerOf(x.host, t) === x.st.userEmail);

export const scriptHandlers = {
  ScriptApp: {
    createTrigger: (x, h, [spec]) => {
      const host = x.host;
      if (mine(x).length >= MAX_TRIGGERS_PER_USER) throw new GasError(TOO_MANY_TRIGGERS_MESSAGE);
      if (spec.source === 'SPREADSHEETS' && spec.sourceId !== host.ss.id) throw new GasError(`Unexpected error while getting the method or property forSpreadsheet on object ScriptApp.`);
      const t = { id: String(randomInt(1e9, 2 ** 47)) + String(randomInt(1e5, 1e6)), handler: String(spec.handler), type: spec.type, source: spec.source };
      if (spec.sourceId) t.sourceId = spec.sourceId;
      if (spec.everyMinutes) t.everyMinutes = spec.everyMinutes;
      if (spec.everyHours) t.everyHours = spec.everyHours;
      // The creating execution's effective user owns the trigger, and every run it fires executes as that user.
      t.owner = x.st.userEmail;
      host.triggers.push(t);
      host.markDirty();
      return triggerRef(t);
    },
    getProjectTriggers: (x) => mine(x).map(triggerRef),
    getUserTriggers: (x) => mine(x).map(triggerRef),
    deleteTrigger: (x, h, [t]) => {
      const id = t && t.h ? t.h.id : null;
      // Only the caller's own triggers can be named (no other user's trigger is ever handed out), so only those go.
      x.host.triggers = x.host.triggers.filter((u) => u.id !== id || ownerOf(x.host, u) !== x.st.userEmail);
      x.host.markDirty();
    },
  },
};
