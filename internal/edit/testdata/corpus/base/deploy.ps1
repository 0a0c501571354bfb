# Déploiement de l'application sur le serveur de test
param(
    [string]$Environment = "test",
    [switch]$SkipBackup
)

$ErrorActionPreference = "Stop"
$root = Split-Path -Parent $MyInvocation.MyCommand.Path

function Backup-Database {
    param([string]$Name)
    Write-Host "Sauvegarde de $Name..."
    & sqlcmd -S localhost -Q "BACKUP DATABASE [$Name] TO DISK = N'C:\backup\$Name.bak'"
}

if (-not $SkipBackup) {
    Backup-Database -Name "Billing"
}

Write-Host "Copie des fichiers vers $Environment"
Copy-Item -Path "$root\dist\*" -Destination "\\srv-$Environment\apps\billing" -Recurse -Force
Write-Host "Terminé."
