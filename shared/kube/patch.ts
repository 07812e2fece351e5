// Request options that make client-node send a JSON merge patch: custom resources refuse the
// strategic merge patch it would otherwise send.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';

export const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
