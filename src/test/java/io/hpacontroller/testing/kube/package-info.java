/**
 * A real Kubernetes control plane for tests (the project's envtest): etcd, kube-apiserver v1.26.1 and
 * kube-controller-manager, started from the binaries of {@code shared/kube} (unpacked into
 * {@code target/kube-bin}) and Debian's {@code etcd-server}. Nothing is downloaded; a missing program
 * fails the test with what to install. Tests that use it are named {@code *IT} and run in
 * {@code mvn verify} (failsafe, after the unit tests), concurrently.
 *
 * <h2>Using it</h2>
 * <pre>{@code
 * @RealKube                       // the shared control plane; classes and methods run concurrently
 * class MyIT {
 *     @Test
 *     void scales(KubeControlPlane kube, TestNamespace ns) {     // a fresh namespace per test
 *         ns.create(Workloads.deployment("web", 2));              // pods Running and Ready within seconds
 *         ns.metrics().podUsage("app=web", "100m", "64Mi");        // what metrics.k8s.io answers, in ns only
 *         ChartRelease chart = ChartReleases.shipped(kube);       // deploy/'s ServiceAccount and RBAC
 *         try (var c = InProcessController.start(chart.client(), options, null)) {
 *             await().atMost(Waits.STATE).until(...);
 *         }
 *         kube.audit().count(ns.audit().user(chart.user()).code(403));   // what the API server saw
 *     }
 * }
 * }</pre>
 *
 * <h2>What there is</h2>
 * <ul>
 * <li>{@link io.hpacontroller.testing.kube.KubeControlPlane}: {@code start(Options)}, {@code adminClient()},
 *     {@code clientAs(user, groups...)} (impersonation), {@code clientAsServiceAccount(ns, name)} and
 *     {@code kubeconfigForServiceAccount(ns, name, pod)} (tokens from the TokenRequest API, optionally bound to a
 *     Pod), {@code newNamespace(hint)}, {@code audit()}, {@code metrics()}, {@code kubelet()},
 *     {@code restartApiServer()}, {@code kubectl(args...)}, {@code directory()} (certificates, logs, audit log).
 *     kube-apiserver runs with RBAC, {@code --anonymous-auth=false}, the aggregation layer and a JSON audit log;
 *     kube-controller-manager with {@code deployment,replicaset,statefulset,serviceaccount} and
 *     {@code --leader-elect=false} (so an API server restart cannot cost it a lease).</li>
 * <li>{@link io.hpacontroller.testing.kube.RealKube} / {@link io.hpacontroller.testing.kube.RealKubeExtension}: the
 *     shared control plane, started on first use, closed at the end of the run (or by a shutdown hook, or by the
 *     {@link io.hpacontroller.testing.kube.Watchdog} if the JVM is killed); it resolves {@code KubeControlPlane} and
 *     {@code TestNamespace} parameters. A class that restarts the API server takes the lock
 *     {@code RealKubeExtension.SHARED_PLANE} READ_WRITE (the others hold it READ) and has the plane to itself; it also
 *     takes {@code @Order(RealKubeExtension.ORDER_PLANE_TO_ITSELF)}, so that it runs before the others start rather
 *     than stopping every start until the running classes end.</li>
 * <li>A second control plane: {@code KubeControlPlane.start(Options.workloads("name").withUpstreamHpaController(flags))}
 *     in {@code @BeforeAll}, closed in {@code @AfterAll}. Upstream's HPA controller acts on every HPA of its server,
 *     so it never runs on the shared one ({@code UpstreamComparisonIT}).</li>
 * <li>{@link io.hpacontroller.testing.kube.TestNamespace}: {@code create(object)}, {@code metrics()},
 *     {@code audit()} (a filter on this namespace), {@code count(filter)}.</li>
 * <li>{@link io.hpacontroller.testing.kube.AuditLog} and {@link io.hpacontroller.testing.kube.AuditEvent.Filter}:
 *     requests by user, replica pod ({@code pod(name)}, for tokens bound to a Pod), verb, writes, resource, API
 *     group, subresource, namespace, name, response code, time window ({@code since}, {@code before}); each query
 *     first waits until every request answered before it is in the log.</li>
 * <li>{@link io.hpacontroller.testing.kube.FakeMetricsServer} and {@link io.hpacontroller.testing.kube.NamespaceMetrics}:
 *     metrics.k8s.io v1beta1, custom.metrics.k8s.io v1beta2 and v1beta1, external.metrics.k8s.io v1beta1, served in
 *     process over TLS and reached only through kube-apiserver's aggregation proxy (APIServices on an
 *     ExternalName Service {@code localhost}). Per namespace: pod CPU/memory by label selector or by pod, Pods,
 *     Object and External values, an HTTP failure per API, a request counter per API; every pod-metrics query with its time
 *     ({@link io.hpacontroller.testing.kube.MetricsQueries}).</li>
 * <li>{@link io.hpacontroller.testing.kube.Kubelet}: the one Node {@code kube-node}; pods bound to it
 *     ({@link io.hpacontroller.testing.kube.Workloads} templates carry {@code nodeName}) get Running, Ready, a
 *     startTime and container statuses through the status subresource; deleted pods are removed.
 *     {@code holdUnready(ns)} / {@code release(ns)}.</li>
 * <li>{@link io.hpacontroller.testing.kube.ChartRelease}: a rendered chart's ServiceAccount, ClusterRole, Role and
 *     bindings applied as they are; {@code client()} as that ServiceAccount, {@code kubeconfigForPod(pod)} for a
 *     replica whose requests the audit log can tell apart. {@code ChartReleases.shipped(plane)} is a full replacement
 *     ({@code takeOverBuiltinHpas: true}), {@code ChartReleases.mirror(plane)} the default install (the mirror API only,
 *     its CRD installed: {@code ChartReleases.installCrds(plane)}).</li>
 * <li>Our controller: {@link io.hpacontroller.testing.kube.InProcessController} ({@code ControllerRuntime} with a
 *     given client, every sync recorded; a lost lease fails the test at close, it never ends the JVM) and
 *     {@link io.hpacontroller.testing.kube.ControllerProcess} ({@code java -jar target/hpa-controller.jar run ...},
 *     the jar that ships, for SIGKILL).</li>
 * <li>Waiting: on state, never a sleep, with {@link io.hpacontroller.testing.Waits#STATE} as the ceiling (minutes:
 *     the suite runs on 2 busy cores); leader election that a loaded machine keeps, unless losing it is the test:
 *     {@link io.hpacontroller.testing.Waits#steadyLease}.</li>
 * <li>{@link io.hpacontroller.testing.kube.RealApiBench}: not a test but a {@code main}, issue 17's run of the jar and of
 *     upstream's HPA controller at 1,000 HPAs on a control plane of its own (README, "Memory and start-up").</li>
 * </ul>
 */
package io.hpacontroller.testing.kube;
