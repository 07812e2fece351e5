// Standalone mode's TelemetryServices: manifests in one multi-document YAML file.
import { readText } from '../../shared/files.ts';
import type { ServiceResolver } from '../telemetry/pusher.ts';
import { targetOfService, type TelemetryServiceSpec } from '../telemetry/service.ts';
import { yaml } from '../../shared/yaml.ts';

export function fileTelemetryServices(path: string | undefined): ServiceResolver {
  return async (name) => {
    if (path === undefined) return undefined;
    const docs = yaml().parseAllDocuments(await readText(path)).map((d) => d.toJS() as { kind?: string; metadata?: { name?: string }; spec?: TelemetryServiceSpec } | null);
    const found = docs.find((d) => d?.kind === 'TelemetryService' && d.metadata?.name === name);
    return found === undefined || found === null ? undefined : targetOfService(name, found.spec ?? {});
  };
}
