// Entry of dist/bundle/yaml.cjs (npm run build:bundle), which shared/yaml.ts loads for a moment.
export * from 'yaml';
