// File reads as promises over node:fs's callback API. node:fs/promises brings Node's readline
// interface, REPL history and os modules with it (Node's internal/fs/promises loads them), and so
// does an ESM import of node:fs, whose namespace reads the lazy `fs.promises`: deviceShifu uses none
// of them (deviceshifu/README.md, "What deviceShifu adds over its floor"). So node:fs is taken with
// process.getBuiltinModule, here and wherever deviceShifu loads it.
import type { Stats } from 'node:fs';

const fs = process.getBuiltinModule('node:fs');

/** The file's text (UTF-8). */
export function readText(path: string): Promise<string> {
  return new Promise((resolve, reject) => { fs.readFile(path, 'utf8', (err, text) => { if (err === null) resolve(text); else reject(err); }); });
}

/** The names in a directory. */
export function readDirectory(path: string): Promise<string[]> {
  return new Promise((resolve, reject) => { fs.readdir(path, (err, names) => { if (err === null) resolve(names); else reject(err); }); });
}

/** What stat(2) says of a path, following symlinks. */
export function statOf(path: string): Promise<Stats> {
  return new Promise((resolve, reject) => { fs.stat(path, (err, stats) => { if (err === null) resolve(stats); else reject(err); }); });
}
