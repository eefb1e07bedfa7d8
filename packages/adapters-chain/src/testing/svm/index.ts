// The local SVM apart from ./testing: litesvm loads a native binary, which the service image leaves out (it runs no
// dev chain), so nothing the app imports at start-up may import it.
export { LOCAL_SVM_NETWORK, LocalSvm } from './local-svm.js'
export { serveSvmJsonRpc } from './svm-json-rpc.js'
export { extractableKeyPair } from './extractable-key.js'
