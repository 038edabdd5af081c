export { BaseViewSet, isImplemented } from './viewset.js';
export type { ViewSet, ViewSetOperation } from './viewset.js';
export type { Serializer } from './serializer.js';
export { resource } from './resource.js';
export { ViewSetModule } from './viewset.module.js';
export { VIEWSET_MODULE_OPTIONS, ViewSetConfigError } from './viewset.options.js';
export type { ViewSetEntry, ViewSetGuard, ViewSetModuleOptions } from './viewset.options.js';
