export * from './errors';
export * from './envelope';
export * from './enums';
export * from './time';
export * from './backoff';
export * from './permissions';
