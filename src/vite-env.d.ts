declare const __APP_VERSION__: string;
declare const __DEPLOY_TIME__: string;
