// The runtime's error types: what a service call throws into the script, and what ends an execution from the host.
// Each carries a stable `code`; the host classifies by code (host.dispatch), never by class.

/** A service exception the script sees as Apps Script's: String(e) reads "Exception: <message>". */
export class GasError extends Error {
  constructor(message, name = 'Exception') { super(message); this.name = name; this.code = 'GAS_EXCEPTION'; }
}

/** Ends the calling execution at once (as a kill would) with the given status and error: an injected crash. */
export class KillExecution extends Error {
  constructor(status, error) { super(error.message); this.status = status; this.error = error; this.code = 'KILL_EXECUTION'; }
}
