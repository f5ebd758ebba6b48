export { createUserLibrary, type User, type UserLibrary } from './user-library.ts';
