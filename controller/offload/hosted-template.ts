// What a Deployment a neighbour hands over may carry (a schema, checked by the host before it
// accepts): the containers, their ports, resources, environment, probes and security context,
// and volumes that stay inside the pod. Anything else (scheduling onto chosen nodes, priority,
// runtime classes, image pull Secrets, DNS settings) is refused with its path, so a host runs
// only what it understands. Fields the Pod Security check refuses with its own reason
// (hostNetwork, hostPath, privileged, a ServiceAccount…) are listed here so that check names them.
import { Type, type TSchema } from '@sinclair/typebox';
import { Validator, type FieldError } from '../../shared/validation.ts';

const Strict = <T extends Parameters<typeof Type.Object>[0]>(properties: T): ReturnType<typeof Type.Object<T>> => Type.Object(properties, { additionalProperties: false });
const Str = (): ReturnType<typeof Type.String> => Type.String({ maxLength: 4096 });
const Strs = (): TSchema => Type.Array(Str(), { maxItems: 256 });
const IntOrString = (): TSchema => Type.Union([Type.Integer(), Type.String({ maxLength: 64 })]);
const Quantities = (): TSchema => Type.Record(Type.String({ maxLength: 253 }), IntOrString());
const Named = (): TSchema => Strict({ name: Str(), key: Type.Optional(Str()), optional: Type.Optional(Type.Boolean()) });

const SecurityContextCommon = {
  runAsNonRoot: Type.Optional(Type.Boolean()),
  runAsUser: Type.Optional(Type.Integer()),
  runAsGroup: Type.Optional(Type.Integer()),
  seccompProfile: Type.Optional(Strict({ type: Str(), localhostProfile: Type.Optional(Str()) })),
  appArmorProfile: Type.Optional(Strict({ type: Str(), localhostProfile: Type.Optional(Str()) })),
  seLinuxOptions: Type.Optional(Strict({ user: Type.Optional(Str()), role: Type.Optional(Str()), type: Type.Optional(Str()), level: Type.Optional(Str()) })),
  windowsOptions: Type.Optional(Strict({ hostProcess: Type.Optional(Type.Boolean()), runAsUserName: Type.Optional(Str()) })),
};

const ContainerSecurityContext = Strict({
  ...SecurityContextCommon,
  privileged: Type.Optional(Type.Boolean()),
  allowPrivilegeEscalation: Type.Optional(Type.Boolean()),
  readOnlyRootFilesystem: Type.Optional(Type.Boolean()),
  procMount: Type.Optional(Str()),
  capabilities: Type.Optional(Strict({ add: Type.Optional(Strs()), drop: Type.Optional(Strs()) })),
});

const PodSecurityContext = Strict({
  ...SecurityContextCommon,
  fsGroup: Type.Optional(Type.Integer()),
  fsGroupChangePolicy: Type.Optional(Str()),
  supplementalGroups: Type.Optional(Type.Array(Type.Integer(), { maxItems: 64 })),
  sysctls: Type.Optional(Type.Array(Strict({ name: Str(), value: Str() }), { maxItems: 64 })),
});

const Probe = Strict({
  exec: Type.Optional(Strict({ command: Strs() })),
  httpGet: Type.Optional(Strict({ path: Type.Optional(Str()), port: IntOrString(), scheme: Type.Optional(Str()), httpHeaders: Type.Optional(Type.Array(Strict({ name: Str(), value: Str() }), { maxItems: 32 })) })),
  tcpSocket: Type.Optional(Strict({ port: IntOrString() })),
  grpc: Type.Optional(Strict({ port: Type.Integer(), service: Type.Optional(Str()) })),
  initialDelaySeconds: Type.Optional(Type.Integer({ minimum: 0 })),
  periodSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
  timeoutSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
  successThreshold: Type.Optional(Type.Integer({ minimum: 0 })),
  failureThreshold: Type.Optional(Type.Integer({ minimum: 0 })),
  terminationGracePeriodSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
});

const Container = Strict({
  name: Str(),
  image: Str(),
  imagePullPolicy: Type.Optional(Str()),
  command: Type.Optional(Strs()),
  args: Type.Optional(Strs()),
  workingDir: Type.Optional(Str()),
  ports: Type.Optional(Type.Array(Strict({
    name: Type.Optional(Str()), containerPort: Type.Integer(), protocol: Type.Optional(Str()),
    hostPort: Type.Optional(Type.Integer()), hostIP: Type.Optional(Str()),
  }), { maxItems: 64 })),
  env: Type.Optional(Type.Array(Strict({
    name: Str(), value: Type.Optional(Str()),
    valueFrom: Type.Optional(Strict({
      fieldRef: Type.Optional(Strict({ fieldPath: Str(), apiVersion: Type.Optional(Str()) })),
      resourceFieldRef: Type.Optional(Strict({ resource: Str(), containerName: Type.Optional(Str()), divisor: Type.Optional(IntOrString()) })),
      configMapKeyRef: Type.Optional(Named()),
      secretKeyRef: Type.Optional(Named()),
    })),
  }), { maxItems: 256 })),
  resources: Type.Optional(Strict({ requests: Type.Optional(Quantities()), limits: Type.Optional(Quantities()) })),
  volumeMounts: Type.Optional(Type.Array(Strict({
    name: Str(), mountPath: Str(), readOnly: Type.Optional(Type.Boolean()), subPath: Type.Optional(Str()), subPathExpr: Type.Optional(Str()),
  }), { maxItems: 64 })),
  livenessProbe: Type.Optional(Probe),
  readinessProbe: Type.Optional(Probe),
  startupProbe: Type.Optional(Probe),
  securityContext: Type.Optional(ContainerSecurityContext),
  terminationMessagePath: Type.Optional(Str()),
  terminationMessagePolicy: Type.Optional(Str()),
  stdin: Type.Optional(Type.Boolean()),
  tty: Type.Optional(Type.Boolean()),
});

/** Volumes that stay inside the pod, its namespace's ConfigMaps and Secrets, and hostPath (named by the Pod Security check). */
const Volume = Strict({
  name: Str(),
  emptyDir: Type.Optional(Strict({ medium: Type.Optional(Str()), sizeLimit: Type.Optional(IntOrString()) })),
  downwardAPI: Type.Optional(Type.Object({})),
  configMap: Type.Optional(Type.Object({})),
  secret: Type.Optional(Type.Object({})),
  // no serviceAccountToken source: a projected token would give the pod an identity on the host after all
  projected: Type.Optional(Strict({
    sources: Type.Array(Strict({ configMap: Type.Optional(Type.Object({})), secret: Type.Optional(Type.Object({})), downwardAPI: Type.Optional(Type.Object({})) }), { maxItems: 16 }),
    defaultMode: Type.Optional(Type.Integer()),
  })),
  hostPath: Type.Optional(Type.Object({})),
});

export const HostedPodSpec = Strict({
  containers: Type.Array(Container, { minItems: 1, maxItems: 16 }),
  initContainers: Type.Optional(Type.Array(Container, { maxItems: 16 })),
  volumes: Type.Optional(Type.Array(Volume, { maxItems: 64 })),
  securityContext: Type.Optional(PodSecurityContext),
  terminationGracePeriodSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 3600 })),
  restartPolicy: Type.Optional(Type.Literal('Always')),
  enableServiceLinks: Type.Optional(Type.Boolean()),
  // refused by the Pod Security check, with its reason
  hostNetwork: Type.Optional(Type.Boolean()),
  hostPID: Type.Optional(Type.Boolean()),
  hostIPC: Type.Optional(Type.Boolean()),
  hostUsers: Type.Optional(Type.Boolean()),
  automountServiceAccountToken: Type.Optional(Type.Boolean()),
  serviceAccountName: Type.Optional(Str()),
  serviceAccount: Type.Optional(Str()),
});

const podSpecValidator = new Validator(HostedPodSpec, 'spec.template.spec');

/** Fields of a hosted pod spec that are unknown or of the wrong shape, by path. */
export function podSpecErrors(podSpec: unknown): FieldError[] {
  return podSpecValidator.errors(podSpec);
}
