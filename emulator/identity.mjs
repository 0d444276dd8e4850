// Who an execution runs as: the effective user (whose authority, locks, user properties and triggers) and the active user.
//
// Google's rules, in one place:
// - "Installable triggers always run under the account of the person who created them"
//   (https://developers.google.com/apps-script/guides/triggers/installable#restrictions).
// - A web app set to "Execute as: me" runs as the deployer; otherwise a script runs as "the user at the keyboard"
//   (https://developers.google.com/apps-script/guides/services/authorization#permissions_and_types_of_scripts).
// - Session.getEffectiveUser(): the developer for "execute as me" web apps, the trigger's creator for installable
//   triggers, "in most other scenarios ... the same account as getActiveUser()"
//   (https://developers.google.com/apps-script/reference/base/session#geteffectiveuser).
// - Session.getActiveUser().getEmail() is blank where the script runs without that user's authorization (a web app
//   executing as the developer, a trigger someone else installed), "However, these restrictions generally do not apply
//   if the developer runs the script themselves or belongs to the same Google Workspace domain as the user"
//   (https://developers.google.com/apps-script/reference/base/user#getemail).

/** Consumer Google accounts share these domains without being one Workspace domain, so they never see each other. */
const CONSUMER_DOMAINS = new Set(['gmail.com', 'googlemail.com']);

const domainOf = (email) => String(email).split('@')[1]?.toLowerCase() ?? '';

/**
 * The active user's address as the script may see it when `person` acts in an execution that runs as `effective`:
 * the person themselves, or blank across accounts outside one Workspace domain.
 */
export function visibleActiveUser(person, effective) {
  if (!person) return '';
  if (person.toLowerCase() === String(effective).toLowerCase()) return person;
  const domain = domainOf(person);
  return domain && domain === domainOf(effective) && !CONSUMER_DOMAINS.has(domain) ? person : '';
}

/**
 * The identities of one execution.
 * @param {{ kind: string, person?: string, trigger?: { owner?: string } | null, owner: string }} who
 *   kind: 'webapp' | 'trigger' | 'edit' | 'menu' | 'api'; person: who acted (the caller, the editor); trigger: the
 *   installable trigger that fired, if any; owner: the deployer (`--owner`).
 * @returns {{ effectiveUser: string, activeUser: string }}
 */
export function identityOf({ kind, person, trigger, owner }) {
  if (kind === 'webapp') return { effectiveUser: owner, activeUser: visibleActiveUser(person ?? '', owner) };
  if (trigger) {
    const creator = trigger.owner ?? owner;
    // A clock trigger has nobody at the keyboard: it is its creator's run. An edit trigger has the editor.
    return { effectiveUser: creator, activeUser: person === undefined ? creator : visibleActiveUser(person, creator) };
  }
  const user = person ?? owner;
  return { effectiveUser: user, activeUser: user };
}
