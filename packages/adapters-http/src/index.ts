export * from './http-deps.js'
export * from './http-app.js'
export * from './answers.js'
export * from './request-id.js'
