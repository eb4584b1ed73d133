export * from './service';
export * from './routes';
export * from './serializers';
