// A protocol flow as a named list of steps over one context (the aedes handler style): each step
// does one thing and may refuse the message with a CoAP code and a reason, which ends the flow and
// becomes the reply. The step's name goes into the log, so a refusal says where it happened.

/** A refusal a step answers with (a 4.xx code and a diagnostic payload, RFC 7252 §5.5.2). */
export class CoapRefusal extends Error {
  override readonly name = 'CoapRefusal';
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

export interface Step<C> {
  readonly name: string;
  readonly run: (context: C) => void;
}

export type FlowResult = { readonly ok: true } | { readonly ok: false; readonly step: string; readonly refusal: CoapRefusal };

/** Runs the steps in order; the first refusal ends the flow. Anything else thrown is a bug and propagates. */
export function runFlow<C>(steps: readonly Step<C>[], context: C): FlowResult {
  for (const step of steps) {
    try {
      step.run(context);
    } catch (err) {
      if (err instanceof CoapRefusal) return { ok: false, step: step.name, refusal: err };
      throw err;
    }
  }
  return { ok: true };
}
