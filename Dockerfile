# hpa-controller image: build the shaded jar with Maven, run it on a JRE.
#   docker buildx build --platform linux/amd64,linux/arm64 --push -t REGISTRY/hpa-controller:TAG .

# --- build stage: Maven + JDK 17 (not shipped) ---
# On the build machine's platform: the jar is the same for every platform, so a multi-platform build
# (docker buildx build --platform linux/amd64,linux/arm64) compiles it once, without emulation.
FROM --platform=$BUILDPLATFORM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /build
COPY pom.xml .
COPY src/main ./src/main
# The cache mount keeps downloaded dependencies between builds (BuildKit).
RUN --mount=type=cache,target=/root/.m2 mvn -B -q -Dmaven.test.skip=true package

# --- runtime stage: JRE 17 only ---
FROM eclipse-temurin:17-jre-alpine
LABEL org.opencontainers.image.title="hpa-controller" \
      org.opencontainers.image.description="Drop-in replacement for the Kubernetes HPA controller" \
      org.opencontainers.image.source="https://github.com/hpa-controller/hpa-controller" \
      org.opencontainers.image.licenses="Apache-2.0"
# Owned by root and read-only for the controller's user.
COPY --from=build /build/target/hpa-controller.jar /app/hpa-controller.jar
# A numeric non-root user (the pod's runAsUser), so runAsNonRoot can check it.
USER 65532:65532
# metrics, health probes
EXPOSE 8080 8081
# JVM options measured with `bench` (docs/benchmarks.md, "Memory and start-up"): the Serial collector and a heap
# that follows the container's memory limit (half of it) with a small young generation, capped class
# metadata and code cache, small thread stacks, the C1 compiler only. An OutOfMemoryError restarts the
# container. The root filesystem may be read-only: the JVM writes only to /tmp (an emptyDir in the pod).
# In the environment, not the entrypoint, so that the chart's jvmOptions (or docker run -e) replace them.
ENV JDK_JAVA_OPTIONS="-XX:+UseSerialGC -XX:MaxRAMPercentage=50 -Xmn8m -XX:MinHeapFreeRatio=20 -XX:MaxHeapFreeRatio=40 -Xss256k -XX:MaxMetaspaceSize=64m -XX:ReservedCodeCacheSize=32m -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError -Djava.io.tmpdir=/tmp"
ENTRYPOINT ["java", "-jar", "/app/hpa-controller.jar"]
CMD ["run"]
