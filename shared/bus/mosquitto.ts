// Mosquitto as a cluster's broker (any external MQTT 3.1.1/5 broker by URL): the ACL
// file that mirrors acl.ts (with Mosquitto the login name is the cluster id, so %u is the id),
// and the bridge stanza that is the documented alternative to the relay between two brokers.
export interface MosquittoAclOptions {
  /** Cluster id (= user name) of the broker's owner, which reads everything. */
  readonly owner: string;
  /** Bridge logins from other brokers that may write everything (Mosquitto bridge alternative). */
  readonly bridgeUsers?: readonly string[];
}

export function mosquittoAcl(options: MosquittoAclOptions): string {
  const lines = [
    '# edgeshifu bus ACL (generated; mirrors shared/bus/acl.ts)',
    `user ${options.owner}`,
    'topic read edgeshifu/v1/#',
    '',
    ...(options.bridgeUsers ?? []).flatMap((u) => [`user ${u}`, 'topic readwrite edgeshifu/v1/#', '']),
    '# every cluster: publish only under its own id; read broadcasts and what is addressed to it',
    'pattern write edgeshifu/v1/%u/#',
    'pattern read edgeshifu/v1/+/fed/#',
    'pattern read edgeshifu/v1/+/relay/+/fed/#',
    'pattern read edgeshifu/v1/+/to/%u/#',
    'pattern read edgeshifu/v1/+/relay/+/to/%u/#',
    'pattern read edgeshifu/v1/%u/local/#',
    '',
  ];
  return lines.join('\n');
}

export interface BridgeOptions {
  readonly name: string;
  /** host:port of the remote broker. */
  readonly address: string;
  readonly remoteUsername: string;
  readonly remotePassword: string;
}

/** A bridge stanza for mosquitto.conf: all federation topics both ways, QoS 1. */
export function mosquittoBridge(options: BridgeOptions): string {
  return [
    `connection ${options.name}`,
    `address ${options.address}`,
    `remote_username ${options.remoteUsername}`,
    `remote_password ${options.remotePassword}`,
    'remote_clientid edgeshifu-bridge-' + options.name,
    'cleansession true',
    'restart_timeout 1 5',
    'topic edgeshifu/v1/+/fed/# both 1',
    'topic edgeshifu/v1/+/to/# both 1',
    'topic edgeshifu/v1/+/multi/# both 1',
    '',
  ].join('\n');
}
