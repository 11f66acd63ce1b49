# Pier's image: the fat jar built by Maven, run by a JRE as a non-root user.
#   docker build -t pier:0.1.0 .
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml .
RUN mvn -B -q dependency:go-offline
COPY src ./src
# Tests need a kube-apiserver; run them with scripts/test.sh outside the image build.
RUN mvn -B -q -DskipTests -Dspotless.apply.skip=true package

FROM eclipse-temurin:17-jre
RUN groupadd --system --gid 10001 pier \
    && useradd --system --uid 10001 --gid pier --home-dir /nonexistent --no-create-home pier
COPY --from=build /src/target/pier.jar /opt/pier/pier.jar
COPY conf/pier.yaml /etc/pier/pier.yaml
USER 10001:10001
EXPOSE 9080
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError -Djava.io.tmpdir=/tmp -Dvertx.cacheDirBase=/tmp/vertx-cache"
ENTRYPOINT ["java", "-jar", "/opt/pier/pier.jar"]
CMD ["--config", "/etc/pier/pier.yaml"]
