// What a command runs with: its parsed invocation, the terminal, and lazily opened access to the
// cluster and the controller (a command that needs neither, like `down`, opens nothing).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { EdgeshifuError } from '../shared/errors.ts';
import { stringOption, UsageError, type Invocation } from './args.ts';
import { ClusterAccess } from './cluster.ts';
import { chooseController, chooseKubeconfig, stackDirOf, type KubeconfigChoice } from './connection.ts';
import { directController, proxiedController, type ControllerAccess } from './controller-access.ts';
import { isLocalStackKubeconfig, localDeviceShifus, readStackState, type LocalDeviceShifu } from './local-stack.ts';

const HTTP_URL = /^https?:\/\/[^/]+/;

export interface Terminal {
  out(text: string): void;
  err(text: string): void;
}

export interface CliEnvironment {
  readonly env: NodeJS.ProcessEnv;
  readonly terminal: Terminal;
  readonly now: () => Date;
}

export class CliContext {
  readonly invocation: Invocation;
  readonly env: NodeJS.ProcessEnv;
  readonly terminal: Terminal;
  readonly now: () => Date;
  private opened: ClusterAccess | undefined;

  constructor(invocation: Invocation, environment: CliEnvironment) {
    this.invocation = invocation;
    this.env = environment.env;
    this.terminal = environment.terminal;
    this.now = environment.now;
  }

  /** Prints a line (or lines) on stdout. */
  print(text: string): void {
    this.terminal.out(text.endsWith('\n') ? text : `${text}\n`);
  }

  /** Progress and notes go to stderr, so stdout stays what a script reads. */
  note(text: string): void {
    this.terminal.err(text.endsWith('\n') ? text : `${text}\n`);
  }

  kubeconfig(): KubeconfigChoice {
    const choice = chooseKubeconfig({ flag: stringOption(this.invocation, 'kubeconfig'), env: this.env, homedir: homedir(), exists: existsSync });
    if (choice === undefined) {
      throw new EdgeshifuError('invalid', 'no kubeconfig found: start the local stack with `edgeshifu up`, set KUBECONFIG, or pass --kubeconfig <file>');
    }
    return choice;
  }

  cluster(): ClusterAccess {
    this.opened ??= ClusterAccess.open(this.kubeconfig(), stringOption(this.invocation, 'context'), this.env);
    return this.opened;
  }

  controller(): ControllerAccess {
    const flag = stringOption(this.invocation, 'controller');
    const fromEnv = this.env.EDGESHIFU_CONTROLLER === '' ? undefined : this.env.EDGESHIFU_CONTROLLER;
    if (flag !== undefined && !HTTP_URL.test(flag)) {
      throw new UsageError(`--controller must be an http:// or https:// address, got "${flag}"`, this.invocation.command.name);
    }
    if (flag === undefined && fromEnv !== undefined && !HTTP_URL.test(fromEnv)) {
      throw new EdgeshifuError('invalid', `$EDGESHIFU_CONTROLLER must be an http:// or https:// address, got "${fromEnv}"`);
    }
    // an address given outright needs no kubeconfig
    const kubeconfig = flag === undefined && fromEnv === undefined ? this.kubeconfig() : undefined;
    const stackDir = kubeconfig === undefined ? undefined : stackDirOf(kubeconfig);
    const choice = chooseController({
      flag, env: this.env,
      stackControllerUrl: stackDir === undefined ? undefined : readStackState(stackDir)?.controllerUrl,
      localStack: kubeconfig !== undefined && isLocalStackKubeconfig(kubeconfig.path),
    });
    return choice.kind === 'direct' ? directController(choice.url, choice.source) : proxiedController(this.cluster(), choice);
  }

  /** The deviceShifus a local stack's development runner serves on localhost, if this is one. */
  localDeviceShifus(): LocalDeviceShifu[] | undefined {
    return localDeviceShifus(this.kubeconfig().path);
  }

  close(): void {
    this.opened?.close();
  }
}
