// Solution (thesis ch. 7, Listing 7.5/7.7 overall_offloading): the origin's final word on an app,
// broadcast so every agent closes its auction (in sealed mode sent to each provider called to bid,
// `to`: nobody else knew of the app). Placement only, never votes.
import { Type, type Static } from '@sinclair/typebox';
import { ClusterId, Recipients, Name } from '../model.ts';
import { message } from '../../../shared/bus/envelope.ts';

export const SolutionMessage = message('solution', {
  app: Name,
  baseCluster: ClusterId,
  outcome: Type.Union([Type.Literal('placed'), Type.Literal('failed')]),
  placement: Type.Record(Type.String(), ClusterId, { description: 'component -> hosting cluster.' }),
  reason: Type.Optional(Type.String({ maxLength: 1024 })),
  to: Type.Optional(ClusterId),
  recipients: Recipients,
});
export type SolutionMessage = Static<typeof SolutionMessage>;
